ALTER TABLE "referrals" ADD COLUMN "reward_payment_id" uuid;--> statement-breakpoint
ALTER TABLE "referrals" ADD COLUMN "reward_due_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "referrals" ADD COLUMN "reward_refusal" text;--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "signup_ip" text;