-- AlterTable
ALTER TABLE "Run" ADD COLUMN     "notBefore" TIMESTAMP(3);
