/** Escapes text for HTML content and quoted attribute values. */
export const escape = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * The frame of the sandbox's simulated pages (3DS challenge, redirect approval, Paze checkout): a
 * phone viewport and the hosted payment page's own style sheet, so they read at 390 px wide and look
 * of a piece with the page that sends the buyer there. No inline style and no script: their CSP is
 * `style-src 'self'` (routes/sandbox-approval.ts, `html`). `title` is code text; `body` is HTML the
 * caller escaped; `note` says what the page simulates.
 */
export function sandboxPage(title: string, body: string, note: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer"><title>${escape(title)}</title><link rel="stylesheet" href="/pay-assets/page.css"></head>
<body><main><h1>${escape(title)}</h1>${body}<p class="secured">${note}</p></main></body></html>`;
}
