import { Type, type Static, type TSchema } from 'typebox';

/**
 * A body with several forms told apart by one field (`method`). Written as an if/then/else chain,
 * not `anyOf`: the validator drops unknown fields (`removeAdditional`), and inside `anyOf` the
 * first form tried would strip the fields of the others; the chain also reports the errors of the
 * chosen form only. A missing key takes `defaultValue`.
 */
export function Discriminated<const T extends readonly TSchema[]>(
  key: string,
  values: { [K in keyof T]: string },
  forms: T,
  options: { defaultValue?: string; title?: string; description?: string } = {},
) {
  const chain = (index: number): object =>
    index === forms.length - 1
      ? forms[index]!
      : { if: { properties: { [key]: { const: values[index] } } }, then: forms[index], else: chain(index + 1) };
  return Type.Unsafe<Static<T[number]>>({
    type: 'object',
    required: options.defaultValue === undefined ? [key] : [],
    properties: {
      [key]: {
        type: 'string',
        enum: [...values],
        ...(options.defaultValue === undefined ? {} : { default: options.defaultValue }),
      },
    },
    ...(options.title ? { title: options.title } : {}),
    ...(options.description ? { description: options.description } : {}),
    ...chain(0),
  });
}

/**
 * Two forms of one discriminator value told apart by whether `key` is present (Click to Pay: a
 * card `number`, else a device token): an if/then/else, so that each form reports its own errors
 * and OpenAPI shows both.
 */
export function KeyPresence<const A extends TSchema, const B extends TSchema>(key: string, withKey: A, withoutKey: B) {
  return Type.Unsafe<Static<A> | Static<B>>({ if: { required: [key] }, then: withKey, else: withoutKey });
}
