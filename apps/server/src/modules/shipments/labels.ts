import bwipjs from 'bwip-js';
import { PDFDocument, StandardFonts, rgb, type PDFFont, type PDFPage } from 'pdf-lib';
import type { AddressView, ShipmentView } from '@shiptrail/contract';

/** 4 x 6 in, the thermal label size, in PDF points. */
export const LABEL_WIDTH = 4 * 72;
export const LABEL_HEIGHT = 6 * 72;
const MARGIN = 14;

/** The PDF standard fonts speak WinAnsi only: anything else would make pdf-lib throw, so it becomes '?'. */
const winAnsi = (s: string) => s.normalize('NFC').replace(/[^\x20-\x7e\u00a0-\u00ff]/g, '?');

/** The Code 128 barcode of a tracking number, as a PNG (bars only; the number is printed under it as text). */
export function barcodePng(tid: string): Promise<Buffer> {
  return bwipjs.toBuffer({ bcid: 'code128', text: tid, scale: 3, height: 18, includetext: false, paddingwidth: 10, paddingheight: 4, backgroundcolor: 'FFFFFF' });
}

function fit(font: PDFFont, text: string, size: number, width: number): string {
  let t = winAnsi(text);
  while (t.length > 1 && font.widthOfTextAtSize(t, size) > width) t = t.slice(0, -1);
  return t;
}

function addressLines(a: AddressView): string[] {
  const cityLine = [a.city, [a.state, a.zip].filter(Boolean).join(' ')].filter(Boolean).join(', ');
  return [a.name, a.company, a.address1, a.address2, cityLine, a.country].filter((l) => l && l.trim());
}

async function drawLabel(doc: PDFDocument, page: PDFPage, s: ShipmentView, brand: string, fonts: { regular: PDFFont; bold: PDFFont }) {
  const { regular, bold } = fonts;
  const inner = LABEL_WIDTH - 2 * MARGIN;
  const black = rgb(0, 0, 0);
  let y = LABEL_HEIGHT - MARGIN;
  const text = (t: string, size: number, font = regular, x = MARGIN, width = inner) => {
    y -= size + 2;
    page.drawText(fit(font, t, size, width), { x, y, size, font, color: black });
  };
  const rule = () => {
    y -= 6;
    page.drawLine({ start: { x: MARGIN, y }, end: { x: LABEL_WIDTH - MARGIN, y }, thickness: 1, color: black });
    y -= 4;
  };

  text(brand, 12, bold);
  rule();
  text('FROM', 7, bold);
  for (const l of addressLines(s.origin)) text(l, 9);
  if (s.orderId) {
    y -= 2;
    text(`ORDER ID: ${s.orderId}`, 9, bold);
  }
  rule();
  text('SHIP TO', 8, bold);
  for (const l of addressLines(s.destination)) text(l, 13, bold);
  rule();

  const png = await doc.embedPng(await barcodePng(s.tid));
  const w = inner;
  const h = Math.min(90, (png.height / png.width) * w * 1.6);
  y -= h + 4;
  page.drawImage(png, { x: MARGIN, y, width: w, height: h });
  const size = 14;
  const tw = bold.widthOfTextAtSize(s.tid, size);
  y -= size + 4;
  page.drawText(s.tid, { x: (LABEL_WIDTH - tw) / 2, y, size, font: bold, color: black });
  const weight = s.parcels.reduce((sum, p) => sum + p.weight * p.quantity, 0);
  const count = s.parcels.reduce((sum, p) => sum + p.quantity, 0);
  if (count) {
    y -= 4;
    text(`${count} parcel${count === 1 ? '' : 's'}, ${Math.round(weight * 100) / 100} ${s.parcels[0]?.weightUnit ?? ''}`.trim(), 9);
  }
}

/** One 4x6 in page per shipment, one PDF. */
export async function renderLabels(shipments: ShipmentView[], brand: string): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  doc.setTitle(shipments.length === 1 ? `Label ${shipments[0]!.tid}` : `${shipments.length} labels`);
  doc.setCreator('Shiptrail');
  const fonts = { regular: await doc.embedFont(StandardFonts.Helvetica), bold: await doc.embedFont(StandardFonts.HelveticaBold) };
  for (const s of shipments) {
    const page = doc.addPage([LABEL_WIDTH, LABEL_HEIGHT]);
    await drawLabel(doc, page, s, brand, fonts);
  }
  return doc.save();
}
