import { Type } from 'typebox';
import { Nullable, StringEnum } from '../../http/schemas/common.ts';
import { VELOCITY_KEYS, VELOCITY_MEASURES } from '../velocity/velocity-window.ts';
import { VELOCITY_OPERATORS } from './velocity-condition.ts';

/** One velocity condition of a matched rule as the dry run and the decision trace show it. */
export const VelocityTraceSchema = Type.Object(
  {
    key: StringEnum(VELOCITY_KEYS),
    measure: StringEnum(VELOCITY_MEASURES),
    window_minutes: Type.Integer(),
    currency: Nullable(Type.String()),
    operator: StringEnum(VELOCITY_OPERATORS),
    threshold: Type.Integer(),
    counted: Nullable(
      Type.Number({
        description:
          'The count over the window, this transaction included (null: the transaction has no such key); distinct cards are exact up to 64',
      }),
    ),
  },
  { additionalProperties: false, title: 'FlowVelocityCount' },
);
