import { MSG, type Receipt } from '@shiptrail/contract';
import type { AppContext } from '../../context.ts';
import { notFound } from '../../lib/errors.ts';
import { historyItem } from './payments.ts';
import * as repo from './payments.repository.ts';

type Buyer = { id: string; email: string; firstName: string; lastName: string; company: string; invoiceExtraInfo: string };

/** The receipt of one of the account's succeeded payments (another account's id is simply not found). */
export async function receipt(ctx: AppContext, user: Buyer, id: string): Promise<Receipt> {
  const p = await repo.paymentById(ctx.db, id);
  if (!p || p.userId !== user.id || p.status !== 'submitted_for_settlement') throw notFound(MSG.receiptNotFound);
  const item = historyItem(p);
  const what = p.kind === 'auto_recharge' ? 'Automatic balance recharge' : 'Prepaid balance top-up';
  return {
    ...item,
    seller: {
      name: ctx.config.SELLER_NAME,
      address: ctx.config.SELLER_ADDRESS,
      email: ctx.config.SUPPORT_EMAIL,
      url: ctx.config.publicUrl,
    },
    buyer: {
      name: `${user.firstName} ${user.lastName}`.trim(),
      email: user.email,
      company: user.company,
      invoiceExtraInfo: user.invoiceExtraInfo,
    },
    lineItems: [{ description: what, quantity: 1, unitAmount: item.amount, total: item.amount }],
    total: item.amount,
  };
}

const fmtDate = (iso: string) => {
  const d = new Date(iso);
  // Dates read day / month / year.
  return `${String(d.getUTCDate()).padStart(2, '0')}/${String(d.getUTCMonth() + 1).padStart(2, '0')}/${d.getUTCFullYear()}`;
};

type Pdf = PDFKit.PDFDocument;
const LEFT = 48;

/** The receipt as a landscape A4 PDF: seller and buyer, line items, the card charged, totals. */
export async function receiptPdf(ctx: AppContext, user: Buyer, id: string): Promise<Buffer> {
  const r = await receipt(ctx, user, id);
  // pdfkit is loaded by the first receipt, not at start-up (decision 154).
  const { default: PDFDocument } = await import('pdfkit');
  const doc = new PDFDocument({ size: 'A4', layout: 'landscape', margin: 48, info: { Title: `Receipt ${r.id}`, Author: r.seller.name } });
  const chunks: Buffer[] = [];
  doc.on('data', (c: Buffer) => chunks.push(c));
  const done = new Promise<Buffer>((resolve) => doc.on('end', () => resolve(Buffer.concat(chunks))));
  const right = doc.page.width - 48;
  drawHeading(doc, r, right);
  drawParties(doc, r);
  drawLines(doc, r, right);
  doc
    .font('Helvetica')
    .fontSize(9)
    .fillColor('#777')
    .text(`Thank you. Questions about this receipt: ${r.seller.email}`, LEFT, doc.page.height - 80, {
      width: right - LEFT,
      align: 'center',
    });
  doc.end();
  return done;
}

/** The seller at the left, "Payment Receipt" with its number, date and transaction at the right. */
function drawHeading(doc: Pdf, r: Receipt, right: number): void {
  doc.font('Helvetica-Bold').fontSize(24).fillColor('#1c7ed6').text(r.seller.name, LEFT, 48);
  doc.font('Helvetica').fontSize(10).fillColor('#555');
  for (const line of [r.seller.address, r.seller.email, r.seller.url].filter(Boolean)) doc.text(line);
  doc
    .font('Helvetica-Bold')
    .fontSize(20)
    .fillColor('#222')
    .text('Payment Receipt', LEFT, 48, { width: right - LEFT, align: 'right' });
  doc.font('Helvetica').fontSize(10).fillColor('#555');
  doc.text(`Receipt no. ${r.id}`, { width: right - LEFT, align: 'right' });
  doc.text(`Date ${fmtDate(r.createdAt)}`, { width: right - LEFT, align: 'right' });
  if (r.transactionId) doc.text(`Transaction ${r.transactionId}`, { width: right - LEFT, align: 'right' });
}

/** Who was billed, and the card that paid with the payment's status. */
function drawParties(doc: Pdf, r: Receipt): void {
  const y = 150;
  doc.font('Helvetica-Bold').fontSize(11).fillColor('#222').text('Billed to', LEFT, y);
  doc.font('Helvetica').fontSize(10).fillColor('#333');
  for (const line of [r.buyer.name, r.buyer.company, r.buyer.email, ...r.buyer.invoiceExtraInfo.split('\n')].filter((l) => l.trim()))
    doc.text(line, LEFT);
  doc
    .font('Helvetica-Bold')
    .fontSize(11)
    .fillColor('#222')
    .text('Paid with', LEFT + 380, y);
  doc.font('Helvetica').fontSize(10).fillColor('#333');
  doc.text(`${r.creditCard.cardType} ${r.creditCard.maskedNumber}`, LEFT + 380);
  if (r.creditCard.cardholderName) doc.text(r.creditCard.cardholderName, LEFT + 380);
  doc.text(`Status: ${r.status.replaceAll('_', ' ')}`, LEFT + 380);
}

/** The line items under their column heads, then tax and the total paid. */
function drawLines(doc: Pdf, r: Receipt, right: number): void {
  const cur = r.currencyIsoCode;
  let y = Math.max(doc.y, 230) + 24;
  const cols = [LEFT, LEFT + 420, LEFT + 520, LEFT + 640];
  doc.rect(LEFT, y - 6, right - LEFT, 22).fill('#f1f3f5');
  doc.fillColor('#222').font('Helvetica-Bold').fontSize(10);
  ['Description', 'Quantity', 'Unit price', 'Amount'].forEach((h, i) =>
    doc.text(h, cols[i]!, y, i ? { width: 100, align: 'right' } : undefined),
  );
  y += 24;
  doc.font('Helvetica').fillColor('#333');
  for (const li of r.lineItems) {
    doc.text(li.description, cols[0]!, y);
    doc.text(String(li.quantity), cols[1]!, y, { width: 100, align: 'right' });
    doc.text(`${li.unitAmount} ${cur}`, cols[2]!, y, { width: 100, align: 'right' });
    doc.text(`${li.total} ${cur}`, cols[3]!, y, { width: 100, align: 'right' });
    y += 20;
  }
  doc
    .moveTo(LEFT, y + 4)
    .lineTo(right, y + 4)
    .strokeColor('#ced4da')
    .stroke();
  y += 14;
  doc
    .text('Tax', cols[2]!, y, { width: 100, align: 'right' })
    .text(`${r.taxAmount ?? '0.00'} ${cur}`, cols[3]!, y, { width: 100, align: 'right' });
  y += 18;
  doc
    .font('Helvetica-Bold')
    .text('Total paid', cols[2]!, y, { width: 100, align: 'right' })
    .text(`${r.total} ${cur}`, cols[3]!, y, { width: 100, align: 'right' });
}
