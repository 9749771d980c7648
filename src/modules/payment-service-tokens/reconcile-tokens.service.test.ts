import { describe, expect, it } from 'vitest';
import { tokenResolution } from './reconcile-tokens.service.ts';

const blank = { errorCode: null, rawResponseCode: null, rawResponseDescription: null, token: null, approvalUrl: null };

describe('tokenResolution', () => {
  it('keeps asking while the provider has not decided', () => {
    expect(tokenResolution({ ...blank, status: 'processing' })).toBeNull();
  });

  it('maps final answers onto the row', () => {
    expect(tokenResolution({ ...blank, status: 'succeeded', token: 'tok_1' })).toEqual({
      status: 'succeeded',
      token: 'tok_1',
      approvalUrl: null,
      errorCode: null,
    });
    expect(tokenResolution({ ...blank, status: 'succeeded' })).toMatchObject({
      status: 'failed',
      errorCode: 'missing_token',
    });
    expect(tokenResolution({ ...blank, status: 'failed', errorCode: 'do_not_honor' })).toMatchObject({
      status: 'failed',
      errorCode: 'do_not_honor',
    });
    expect(
      tokenResolution({ ...blank, status: 'buyer_approval_required', approvalUrl: 'https://psp.example/a' }),
    ).toMatchObject({ status: 'buyer_approval_required', approvalUrl: 'https://psp.example/a' });
  });

  it('a call the provider never received failed: nothing exists there', () => {
    expect(tokenResolution({ ...blank, status: 'not_found' })).toMatchObject({
      status: 'failed',
      token: null,
      errorCode: 'service_network_error',
    });
  });
});
