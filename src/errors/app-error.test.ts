import { describe, expect, it } from 'vitest';
import { AppError, fieldRefusal, invalidField } from './app-error.ts';

/** Everything of an AppError the error handler renders (and the headers it sends). */
const rendered = (error: AppError) =>
  JSON.stringify({
    code: error.code,
    status: error.status,
    message: error.message,
    details: error.details,
    resource_id: error.resourceId,
    headers: error.headers,
  });

describe('happy', () => {
  it('fieldRefusal renders as the local helpers it replaced did, byte for byte', () => {
    // The shape card-details, link-payment and the gift card services built by hand (issue 51).
    const local = (message: string, type: string) =>
      new AppError('bad_request', message, { details: [{ location: 'query', pointer: '/bin', message, type }] });
    expect(rendered(fieldRefusal('query', '/bin', 'The BIN must contain only digits', 'bin_not_digits'))).toBe(
      rendered(local('The BIN must contain only digits', 'bin_not_digits')),
    );
    expect(fieldRefusal('body', '/url', 'Not https').details).toEqual([
      { location: 'body', pointer: '/url', message: 'Not https', type: 'value_error' },
    ]);
  });

  it('a headline says more than the field message, which stays on the detail', () => {
    const local = new AppError('bad_request', 'The gift card has expired (expired_card)', {
      details: [{ location: 'body', pointer: '/number', message: 'The gift card has expired', type: 'expired_card' }],
    });
    expect(
      rendered(
        fieldRefusal(
          'body',
          '/number',
          'The gift card has expired',
          'expired_card',
          'The gift card has expired (expired_card)',
        ),
      ),
    ).toBe(rendered(local));
  });

  it('invalidField keeps the generic validation headline', () => {
    expect(invalidField('body', '/id', 'No card', 'checkout_session_no_card').message).toBe(
      'Request failed validation',
    );
  });
});
