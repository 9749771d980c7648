import { describe, expect, it } from 'vitest';
import type { CheckoutWallet } from '../../digital-wallets/wallet-checkout.service.ts';
import { applePayRequest, googlePaymentDataRequest, walletAmount } from './wallet-requests.ts';

const wallet: CheckoutWallet = {
  provider: 'apple',
  displayName: 'Wallet Shop',
  countryCode: null,
  googleMerchantId: null,
  problem: null,
};
const link = { amount: 1250, currency: 'USD', country: 'US', merchant_name: null };

describe('wallet requests', () => {
  it("writes amounts with the currency's decimals", () => {
    expect([
      walletAmount(1250, 'USD'),
      walletAmount(1250, 'JPY'),
      walletAmount(1250, 'BHD'),
      walletAmount(5, 'EUR'),
      walletAmount(0, 'USD'),
    ]).toEqual(['12.50', '1250', '1.250', '0.05', '0.00']);
  });

  it("builds Apple Pay JS's request: the merchant's country first, the wallet's name unless the link names the merchant", () => {
    expect(applePayRequest(link, wallet, ['visa', 'mastercard', 'jcb'])).toEqual({
      countryCode: 'US',
      currencyCode: 'USD',
      supportedNetworks: ['visa', 'masterCard'],
      merchantCapabilities: ['supports3DS'],
      total: { label: 'Wallet Shop', amount: '12.50', type: 'final' },
    });
    expect(
      applePayRequest({ ...link, country: null, merchant_name: 'Ada' }, { ...wallet, countryCode: 'GB' }, []),
    ).toMatchObject({ countryCode: 'GB', total: { label: 'Ada' } });
    expect(applePayRequest({ ...link, country: null }, wallet, []).countryCode).toBe('US');
  });

  it("builds Google Pay's PaymentDataRequest for a platform page", () => {
    const request = googlePaymentDataRequest({
      link: { ...link, country: null },
      wallet: { ...wallet, provider: 'google', googleMerchantId: 'BCR2' },
      schemes: ['amex'],
      tokenization: { type: 'PAYMENT_GATEWAY', parameters: { gateway: 'svc', gatewayMerchantId: 'm' } },
      pageHost: 'pay.example',
      authJwt: 'jwt',
    });
    expect(request).toEqual({
      apiVersion: 2,
      apiVersionMinor: 0,
      merchantInfo: { merchantName: 'Wallet Shop', merchantId: 'BCR2', merchantOrigin: 'pay.example', authJwt: 'jwt' },
      allowedPaymentMethods: [
        {
          type: 'CARD',
          parameters: { allowedAuthMethods: ['PAN_ONLY', 'CRYPTOGRAM_3DS'], allowedCardNetworks: ['AMEX'] },
          tokenizationSpecification: {
            type: 'PAYMENT_GATEWAY',
            parameters: { gateway: 'svc', gatewayMerchantId: 'm' },
          },
        },
      ],
      transactionInfo: { totalPriceStatus: 'FINAL', totalPrice: '12.50', currencyCode: 'USD' },
    });
  });
});
