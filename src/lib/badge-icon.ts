/** What a generated icon shows: a coloured card with a short label. */
export interface BadgeLook {
  /** Accessible name and title of the icon. */
  displayName: string;
  /** Short text drawn on the icon. */
  label: string;
  /** Background colour of the icon. */
  color: string;
}

const escapeXml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * A 48×32 SVG badge. Static text only (no scripts, no external references): the card scheme and
 * payment method icons the server serves are these, not the networks' or products' logos, which are
 * trademarks a deployment may license and serve itself.
 */
export function renderBadgeIcon(look: BadgeLook): string {
  const fontSize = look.label.length <= 4 ? 11 : 8;
  const name = escapeXml(look.displayName);
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="48" height="32" viewBox="0 0 48 32" role="img" aria-label="${name}">` +
    `<title>${name}</title>` +
    `<rect x="0.5" y="0.5" width="47" height="31" rx="4" fill="${look.color}" stroke="#d0d5dd"/>` +
    `<text x="24" y="${16 + Math.round(fontSize / 3)}" text-anchor="middle" font-family="Arial, Helvetica, sans-serif" font-size="${fontSize}" font-weight="700" fill="#ffffff">${escapeXml(look.label)}</text>` +
    '</svg>\n'
  );
}
