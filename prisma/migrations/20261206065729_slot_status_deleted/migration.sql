-- AlterEnum
ALTER TYPE "SlotStatus" ADD VALUE 'deleted';
