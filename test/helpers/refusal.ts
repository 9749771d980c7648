/**
 * What a pure check throws, as the error handler renders it: the AppError's code and message and
 * its first detail's pointer and message. Throws when `fn` refused nothing.
 */
export function refusalOf(fn: () => unknown): {
  code: string;
  message: string;
  pointer: string | undefined;
  detail: string | undefined;
} {
  try {
    fn();
  } catch (error) {
    const { code, message, details } = error as {
      code: string;
      message: string;
      details?: Array<{ pointer: string; message: string }>;
    };
    return { code, message, pointer: details?.[0]?.pointer, detail: details?.[0]?.message };
  }
  throw new Error('no refusal');
}
