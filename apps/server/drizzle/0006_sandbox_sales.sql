CREATE TABLE "sandbox_sales" (
	"order_id" text PRIMARY KEY NOT NULL,
	"transaction_id" text NOT NULL,
	"transaction" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "sandbox_sales_transaction_id_unique" UNIQUE("transaction_id")
);
