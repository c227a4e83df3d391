export const number = (value: number) => value.toLocaleString('en-US');

export function when(iso: string | undefined | null): string {
  if (!iso) return '—';
  return iso.replace('T', ' ').replace(/\.\d+Z$/, 'Z');
}
