/** Wire schemas of the backfill of a cron job (`POST /cron/{id}/backfill`; docs/cron.md, "Backfill"). */
import { Type, type Static } from 'typebox';
import { BACKFILL_MAX } from '../../service/cron-backfill.js';
import { RuleString } from './common.js';
import { ExecutionSchema } from './executions.js';

/** Body of POST /cron/{id}/backfill: the range of occurrences, `from` inclusive, `to` exclusive. */
export const CronBackfillBody = Type.Object(
  {
    from: RuleString(
      'instant',
      'Start of the range (ISO 8601 with `Z` or an offset; inclusive). Before `to`, and within the execution retention ' +
        '(`PUNCTUAL_EXECUTION_RETENTION`) of now.',
    ),
    to: RuleString('instant', 'End of the range (ISO 8601 with `Z` or an offset; exclusive). Not after now.'),
  },
  { additionalProperties: false, title: 'CronBackfill', description: 'The occurrences to backfill: those in [from, to).' },
);
export type CronBackfillBody = Static<typeof CronBackfillBody>;

/** Answer of POST /cron/{id}/backfill. */
export const CronBackfilledSchema = Type.Object(
  {
    count: Type.Integer({ minimum: 0, maximum: BACKFILL_MAX, description: 'How many executions were created (0 when every occurrence already had one).' }),
    executions: Type.Array(ExecutionSchema, {
      maxItems: BACKFILL_MAX,
      description: 'The executions created (`backfill: true`, `Pending`), oldest first.',
    }),
  },
  { additionalProperties: false, title: 'CronBackfilled', description: 'The result of a backfill.' },
);
