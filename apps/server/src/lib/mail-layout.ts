/** The shared frame of every mail Shiptrail sends: a rendered mail has a subject, a text body and an escaped HTML twin. */
export interface Rendered {
  subject: string;
  text: string;
  html: string;
}

export const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

export function layout(
  title: string,
  bodyHtml: string,
  footer = 'Shiptrail · parcel tracking for UPS, USPS, FedEx and Canada Post',
): string {
  return `<!doctype html><html><body style="margin:0;background:#f4f6fb;font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;color:#1f2937">
<table role="presentation" width="100%" cellpadding="0" cellspacing="0"><tr><td align="center" style="padding:32px 12px">
<table role="presentation" width="560" cellpadding="0" cellspacing="0" style="max-width:560px;background:#fff;border-radius:12px;padding:32px">
<tr><td><div style="font-weight:700;font-size:20px;color:#2563eb;margin-bottom:16px">Shiptrail</div>
<h1 style="font-size:20px;margin:0 0 12px">${escapeHtml(title)}</h1>${bodyHtml}</td></tr></table>
<p style="font-size:12px;color:#6b7280;margin-top:16px">${escapeHtml(footer)}</p></td></tr></table></body></html>`;
}
