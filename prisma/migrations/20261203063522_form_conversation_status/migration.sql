-- CreateIndex
CREATE INDEX "Form_conversationId_status_idx" ON "Form"("conversationId", "status");
