// bwip-js and pdf-lib are loaded by the first label, not at start-up: together about a quarter of a second of a
// start's CPU that a restart would pay for a PDF it may never make (decision 154).
import type { PDFDocument, PDFFont, PDFPage } from 'pdf-lib';
import type { AddressView, ShipmentView } from '@shiptrail/contract';

/** 4 x 6 in, the thermal label size, in PDF points. */
export const LABEL_WIDTH = 4 * 72;
export const LABEL_HEIGHT = 6 * 72;
const MARGIN = 14;

/** The PDF standard fonts speak WinAnsi only: anything else would make pdf-lib throw, so it becomes '?'. */
const winAnsi = (s: string) => s.normalize('NFC').replace(/[^\x20-\x7e\u00a0-\u00ff]/g, '?');

/** The Code 128 barcode of a tracking number, as a PNG (bars only; the number is printed under it as text). */
export async function barcodePng(tid: string): Promise<Buffer> {
  const { default: bwipjs } = await import('bwip-js');
  return bwipjs.toBuffer({
    bcid: 'code128',
    text: tid,
    scale: 3,
    height: 18,
    includetext: false,
    paddingwidth: 10,
    paddingheight: 4,
    backgroundcolor: 'FFFFFF',
  });
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

/** Words of `text` in lines of at most `width` points; at most `max` lines, the last cut with an ellipsis. */
export function wrap(font: PDFFont, text: string, size: number, width: number, max: number): string[] {
  const lines: string[] = [];
  for (const para of winAnsi(text).split(/\r?\n/)) {
    let line = '';
    for (const word of para.split(/\s+/).filter(Boolean)) {
      const next = line ? `${line} ${word}` : word;
      if (font.widthOfTextAtSize(next, size) <= width) line = next;
      else {
        if (line) lines.push(line);
        line = fit(font, word, size, width);
      }
    }
    if (line) lines.push(line);
  }
  if (lines.length <= max) return lines;
  const kept = lines.slice(0, max);
  kept[max - 1] = fit(font, `${kept[max - 1]}...`, size, width);
  if (!kept[max - 1]!.endsWith('...')) kept[max - 1] = `${fit(font, kept[max - 1]!, size, width - font.widthOfTextAtSize('...', size))}...`;
  return kept;
}

const NOTE_MAX_LINES = 4;
const BARCODE_MAX_HEIGHT = 150;
const BARCODE_MIN_HEIGHT = 54;

/**
 * One label, laid out on the whole page: the sender and the recipient from the top, the barcode block from the
 * bottom edge up, and the note (e.g. "Fragile: glass") between them in a box; the barcode takes the height
 * that is left (within bounds), so a short label has no empty third.
 */
async function drawLabel(doc: PDFDocument, page: PDFPage, s: ShipmentView, brand: string, fonts: { regular: PDFFont; bold: PDFFont }) {
  const { regular, bold } = fonts;
  const inner = LABEL_WIDTH - 2 * MARGIN;
  const { rgb } = await import('pdf-lib');
  const black = rgb(0, 0, 0);
  let y = LABEL_HEIGHT - MARGIN;
  const text = (t: string, size: number, font = regular, x = MARGIN, width = inner) => {
    y -= size + 2;
    page.drawText(fit(font, t, size, width), { x, y, size, font, color: black });
  };
  const ruleAt = (at: number, thickness = 1) =>
    page.drawLine({ start: { x: MARGIN, y: at }, end: { x: LABEL_WIDTH - MARGIN, y: at }, thickness, color: black });
  const rule = () => {
    y -= 6;
    ruleAt(y);
    y -= 4;
  };

  // ---- from the top: brand, sender, order, recipient
  text(brand, 14, bold);
  rule();
  text('FROM', 7, bold);
  for (const l of addressLines(s.origin)) text(l, 9);
  if (s.orderId) {
    y -= 2;
    text(`ORDER ID: ${s.orderId}`, 10, bold);
  }
  rule();
  text('SHIP TO', 8, bold);
  y -= 2;
  for (const l of addressLines(s.destination)) text(l, 15, bold);
  if (s.destination.phone) text(s.destination.phone, 10);
  rule();
  const topEnd = y;

  // ---- from the bottom: the number, the barcode over it, the parcels line over that
  const tidSize = 16;
  const tidY = MARGIN;
  const weight = s.parcels.reduce((sum, p) => sum + p.weight * p.quantity, 0);
  const count = s.parcels.reduce((sum, p) => sum + p.quantity, 0);
  const parcelsLine = count
    ? `${count} parcel${count === 1 ? '' : 's'}, ${Math.round(weight * 100) / 100} ${s.parcels[0]?.weightUnit ?? ''}`.trim()
    : '';

  // ---- the note between them
  const noteSize = 12;
  const note = s.message.trim() ? wrap(bold, s.message.trim(), noteSize, inner - 12, NOTE_MAX_LINES) : [];
  const noteHeight = note.length ? 14 + note.length * (noteSize + 3) + 8 : 0;
  const parcelsHeight = parcelsLine ? 14 : 0;
  const room = topEnd - (tidY + tidSize + 6) - parcelsHeight - noteHeight - 12;
  const barcodeHeight = Math.max(BARCODE_MIN_HEIGHT, Math.min(BARCODE_MAX_HEIGHT, room));

  if (note.length) {
    const boxTop = topEnd - 2;
    const boxBottom = boxTop - noteHeight + 4;
    page.drawRectangle({ x: MARGIN, y: boxBottom, width: inner, height: boxTop - boxBottom, borderColor: black, borderWidth: 1.5 });
    let ny = boxTop - 11;
    page.drawText('NOTE', { x: MARGIN + 6, y: ny, size: 7, font: bold, color: black });
    for (const l of note) {
      ny -= noteSize + 3;
      page.drawText(l, { x: MARGIN + 6, y: ny, size: noteSize, font: bold, color: black });
    }
  }

  const png = await doc.embedPng(await barcodePng(s.tid));
  const barcodeY = tidY + tidSize + 6;
  page.drawImage(png, { x: MARGIN, y: barcodeY, width: inner, height: barcodeHeight });
  const tw = bold.widthOfTextAtSize(s.tid, tidSize);
  page.drawText(s.tid, { x: (LABEL_WIDTH - tw) / 2, y: tidY + 2, size: tidSize, font: bold, color: black });
  if (parcelsLine) {
    const py = barcodeY + barcodeHeight + 4;
    page.drawText(fit(regular, parcelsLine, 10, inner), { x: MARGIN, y: py, size: 10, font: regular, color: black });
  }
}

/** One 4x6 in page per shipment, one PDF. */
export async function renderLabels(shipments: ShipmentView[], brand: string): Promise<Uint8Array> {
  const { PDFDocument, StandardFonts } = await import('pdf-lib');
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
