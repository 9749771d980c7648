import { renderBadgeIcon, type BadgeLook } from '../badge-icon.ts';
import type { CardScheme } from './schemes.ts';

/**
 * Display name and icon of every scheme, for `GET /card-scheme-definitions`. The icons are plain
 * generated badges (a coloured card with the scheme's short name), not the networks' logos, which
 * are trademarks a deployment may license and serve itself.
 */
const LOOKS: Record<CardScheme, BadgeLook> = {
  accel: { displayName: 'Accel', label: 'ACCEL', color: '#5b2c83' },
  amex: { displayName: 'American Express', label: 'AMEX', color: '#1f72cd' },
  bancontact: { displayName: 'Bancontact', label: 'BC', color: '#1e3764' },
  'carte-bancaire': { displayName: 'Carte Bancaire', label: 'CB', color: '#1b5e8c' },
  cirrus: { displayName: 'Cirrus', label: 'CIRRUS', color: '#2d4f9e' },
  culiance: { displayName: 'Culiance', label: 'CUL', color: '#4a5568' },
  dankort: { displayName: 'Dankort', label: 'DK', color: '#c8102e' },
  'diners-club': { displayName: 'Diners Club', label: 'DINERS', color: '#0079be' },
  discover: { displayName: 'Discover', label: 'DISC', color: '#e0761a' },
  'eftpos-australia': { displayName: 'eftpos Australia', label: 'EFTPOS', color: '#1d1d1b' },
  elo: { displayName: 'Elo', label: 'ELO', color: '#111111' },
  hipercard: { displayName: 'Hipercard', label: 'HIPER', color: '#b3131b' },
  jcb: { displayName: 'JCB', label: 'JCB', color: '#0b7a3e' },
  maestro: { displayName: 'Maestro', label: 'MAESTRO', color: '#3a4f9b' },
  mastercard: { displayName: 'Mastercard', label: 'MC', color: '#252525' },
  mir: { displayName: 'Mir', label: 'MIR', color: '#0f754e' },
  nyce: { displayName: 'NYCE', label: 'NYCE', color: '#3f6fb5' },
  other: { displayName: 'Other', label: 'CARD', color: '#6b7280' },
  pulse: { displayName: 'Pulse', label: 'PULSE', color: '#00558c' },
  rupay: { displayName: 'RuPay', label: 'RUPAY', color: '#1b3f8b' },
  star: { displayName: 'STAR', label: 'STAR', color: '#0a4595' },
  uatp: { displayName: 'UATP', label: 'UATP', color: '#0d3b66' },
  unionpay: { displayName: 'UnionPay', label: 'UP', color: '#d10429' },
  visa: { displayName: 'Visa', label: 'VISA', color: '#1a1f71' },
};

export const CARD_SCHEME_DISPLAY_NAMES: Readonly<Record<CardScheme, string>> = Object.fromEntries(
  Object.entries(LOOKS).map(([scheme, look]) => [scheme, look.displayName]),
) as Record<CardScheme, string>;

/** Where the server serves a scheme's icon (relative to its public URL). */
export function cardSchemeIconPath(scheme: CardScheme): string {
  return `/assets/card-schemes/${scheme}.svg`;
}

/** The icon's size in pixels (src/lib/badge-icon.ts draws every badge at this size). */
export const CARD_SCHEME_ICON_SIZE = { width: 48, height: 32 } as const;

/** The icon: a 48×32 SVG badge (src/lib/badge-icon.ts). */
export function renderCardSchemeIcon(scheme: CardScheme): string {
  return renderBadgeIcon(LOOKS[scheme]);
}
