/** `ana@example.org` -> `a**@e******.org`: enough for the person to recognise, not for others to read. */
export function maskEmail(email: string): string {
  const [local = '', domain = ''] = email.split('@');
  const dot = domain.lastIndexOf('.');
  const host = dot > 0 ? domain.slice(0, dot) : domain;
  const tld = dot > 0 ? domain.slice(dot) : '';
  const mask = (s: string): string => (s.length <= 1 ? '*' : s[0] + '*'.repeat(Math.min(s.length - 1, 6)));
  return `${mask(local)}@${mask(host)}${tld}`;
}
