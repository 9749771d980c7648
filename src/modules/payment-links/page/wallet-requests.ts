import { Type, type Static } from 'typebox';
import { currencyExponent } from '../../../lib/currencies.ts';
import type { CheckoutWallet, GoogleTokenization } from '../../digital-wallets/wallet-checkout.service.ts';

/**
 * What the page hands the browsers' wallets, built from the link and the payment option's context
 * (its supported schemes): Apple Pay JS's payment request
 * (https://developer.apple.com/documentation/applepayontheweb/applepaypaymentrequest) and Google
 * Pay's PaymentDataRequest (https://developers.google.com/pay/api/web/reference/request-objects).
 * Pure: the caller loads the link, the wallet and the tokenization.
 */

export interface WalletLink {
  amount: number;
  currency: string;
  country: string | null;
  merchant_name: string | null;
}

/** Minor units → the decimal string both wallets take ("12.50", "1250" for JPY). */
export function walletAmount(amount: number, currency: string): string {
  const exponent = currencyExponent(currency);
  return (amount / 10 ** exponent).toFixed(exponent);
}

const APPLE_NETWORKS: Record<string, string> = {
  visa: 'visa',
  mastercard: 'masterCard',
  amex: 'amex',
  discover: 'discover',
};
const GOOGLE_NETWORKS: Record<string, string> = {
  visa: 'VISA',
  mastercard: 'MASTERCARD',
  amex: 'AMEX',
  discover: 'DISCOVER',
};
const networks = (schemes: readonly string[], names: Record<string, string>) =>
  schemes.flatMap((s) => (names[s] ? [names[s]!] : []));

export interface ApplePayRequest {
  countryCode: string;
  currencyCode: string;
  supportedNetworks: string[];
  merchantCapabilities: string[];
  total: { label: string; amount: string; type: 'final' };
}

/** Apple Pay JS's payment request; countryCode is the merchant's (the wallet's country, else the link's, else US). */
export function applePayRequest(link: WalletLink, wallet: CheckoutWallet, schemes: readonly string[]): ApplePayRequest {
  return {
    countryCode: wallet.countryCode ?? link.country ?? 'US',
    currencyCode: link.currency,
    supportedNetworks: networks(schemes, APPLE_NETWORKS),
    // 3DS: device tokens with their cryptogram, which is what this server decrypts (EMV is refused).
    merchantCapabilities: ['supports3DS'],
    total: {
      label: link.merchant_name ?? wallet.displayName,
      amount: walletAmount(link.amount, link.currency),
      type: 'final',
    },
  };
}

const Str = Type.String();
const TokenizationSchema = Type.Union([
  Type.Object(
    {
      type: Type.Literal('DIRECT'),
      parameters: Type.Object(
        { protocolVersion: Type.Literal('ECv2'), publicKey: Str },
        { additionalProperties: false },
      ),
    },
    { additionalProperties: false },
  ),
  Type.Object(
    {
      type: Type.Literal('PAYMENT_GATEWAY'),
      parameters: Type.Object({ gateway: Str, gatewayMerchantId: Str }, { additionalProperties: false }),
    },
    { additionalProperties: false },
  ),
]);

export const GooglePaymentDataRequestSchema = Type.Object(
  {
    apiVersion: Type.Literal(2),
    apiVersionMinor: Type.Literal(0),
    merchantInfo: Type.Object(
      { merchantName: Str, merchantId: Type.Optional(Str), merchantOrigin: Str, authJwt: Str },
      { additionalProperties: false },
    ),
    allowedPaymentMethods: Type.Array(
      Type.Object(
        {
          type: Type.Literal('CARD'),
          parameters: Type.Object(
            { allowedAuthMethods: Type.Array(Str), allowedCardNetworks: Type.Array(Str) },
            { additionalProperties: false },
          ),
          tokenizationSpecification: TokenizationSchema,
        },
        { additionalProperties: false },
      ),
    ),
    transactionInfo: Type.Object(
      { totalPriceStatus: Type.Literal('FINAL'), totalPrice: Str, currencyCode: Str, countryCode: Type.Optional(Str) },
      { additionalProperties: false },
    ),
  },
  {
    additionalProperties: false,
    title: 'GooglePayPaymentDataRequest',
    description: "Google Pay's PaymentDataRequest, to hand to PaymentsClient.loadPaymentData as is",
  },
);
export type GooglePaymentDataRequest = Static<typeof GooglePaymentDataRequestSchema>;

export interface GoogleRequestInput {
  link: WalletLink;
  wallet: CheckoutWallet;
  schemes: readonly string[];
  tokenization: GoogleTokenization;
  /** The page's host: merchantOrigin, and the origin the authJwt names. */
  pageHost: string;
  authJwt: string;
}

/**
 * Google Pay's PaymentDataRequest. The page is served by this server for many merchants, Google's
 * "platform" case: merchantInfo carries merchantOrigin and the authJwt signed for it.
 */
export function googlePaymentDataRequest(input: GoogleRequestInput): GooglePaymentDataRequest {
  const { link, wallet } = input;
  const country = wallet.countryCode ?? link.country;
  return {
    apiVersion: 2,
    apiVersionMinor: 0,
    merchantInfo: {
      merchantName: link.merchant_name ?? wallet.displayName,
      ...(wallet.googleMerchantId ? { merchantId: wallet.googleMerchantId } : {}),
      merchantOrigin: input.pageHost,
      authJwt: input.authJwt,
    },
    allowedPaymentMethods: [
      {
        type: 'CARD',
        parameters: {
          allowedAuthMethods: ['PAN_ONLY', 'CRYPTOGRAM_3DS'],
          allowedCardNetworks: networks(input.schemes, GOOGLE_NETWORKS),
        },
        tokenizationSpecification: input.tokenization,
      },
    ],
    transactionInfo: {
      totalPriceStatus: 'FINAL',
      totalPrice: walletAmount(link.amount, link.currency),
      currencyCode: link.currency,
      ...(country ? { countryCode: country } : {}),
    },
  };
}
