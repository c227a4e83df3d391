/**
 * Pages in a base64 PDF: the `/Type /Page` objects (not `/Pages`, the page-tree nodes). A PDF
 * that compresses its object streams hides them; then the `/Count` of the page tree is used, and
 * failing both, one page.
 */
export function countPdfPages(base64: string): number {
  const text = Buffer.from(base64, 'base64').toString('latin1');
  const pages = text.match(/\/Type\s*\/Page(?![a-zA-Z])/g)?.length ?? 0;
  if (pages > 0) return pages;
  const counts = [...text.matchAll(/\/Count\s+(\d+)/g)].map((match) => Number(match[1]));
  return Math.max(1, ...counts);
}

export function decodeBase64Text(base64: string): string {
  return Buffer.from(base64, 'base64').toString('utf8');
}
