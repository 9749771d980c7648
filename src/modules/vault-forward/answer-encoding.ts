import { brotliDecompressSync, gunzipSync, inflateRawSync, inflateSync } from 'node:zlib';

/**
 * A target's answer decoded from its `content-encoding`, so that an echoed card number can be found
 * and masked. The forward asks for `accept-encoding: identity`, but a target may compress anyway:
 * gzip, deflate and br are decoded (the caller gets the answer uncompressed); anything else cannot
 * be inspected, and is refused rather than passed back unmasked (docs/vault-forward.md, "The answer").
 */

/** An answer that cannot be decoded to be inspected: the forward answers 502. */
export class UndecodableAnswer extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UndecodableAnswer';
  }
}

/** A second coding is rare (gzip, then br); each decoding costs up to the size bound, so a long chain is refused. */
const MAX_CODINGS = 2;

const inflate = (body: Buffer, maxOutputLength: number): Buffer => {
  // `deflate` is the zlib format (RFC 9110), but some servers send the raw deflate stream.
  try {
    return inflateSync(body, { maxOutputLength });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') throw error;
    return inflateRawSync(body, { maxOutputLength });
  }
};

const DECODERS: Record<string, (body: Buffer, maxOutputLength: number) => Buffer> = {
  gzip: (body, maxOutputLength) => gunzipSync(body, { maxOutputLength }),
  'x-gzip': (body, maxOutputLength) => gunzipSync(body, { maxOutputLength }),
  deflate: inflate,
  br: (body, maxOutputLength) => brotliDecompressSync(body, { maxOutputLength }),
};

/**
 * The body without its content codings (`header`: the answer's `content-encoding`), at most
 * `maxBytes` once decoded; null when it has none to remove. Throws UndecodableAnswer naming why.
 */
export function decodedAnswer(header: string | undefined, body: Buffer, maxBytes: number): Buffer | null {
  if (header === undefined) return null;
  const codings = header
    .split(',')
    .map((c) => c.trim().toLowerCase())
    .filter((c) => c !== '' && c !== 'identity');
  if (codings.length === 0) return null;
  if (codings.length > MAX_CODINGS || codings.some((c) => !DECODERS[c])) {
    throw new UndecodableAnswer(
      `its answer has content-encoding "${header}", which cannot be decoded to mask card numbers in it (gzip, deflate and br can, ${MAX_CODINGS} at most; the request asked for identity)`,
    );
  }
  let decoded = body;
  // Codings are listed in the order they were applied: undone last first.
  for (const coding of codings.reverse()) {
    try {
      decoded = DECODERS[coding]!(decoded, maxBytes);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE')
        throw new UndecodableAnswer(`its answer exceeds ${maxBytes} bytes once decoded (${coding})`);
      throw new UndecodableAnswer(`its answer could not be decoded (${coding}): it is not valid ${coding} data`);
    }
  }
  return decoded;
}
