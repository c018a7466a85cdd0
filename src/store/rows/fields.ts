/**
 * The fields of a domain object that one column each holds as it is (no JSON, no codec), mapped
 * both ways from one list of their names. Such a column is named as its field in snake case
 * (`nextInvocation` → `next_invocation`), the rule of every table of the store, so the list gives
 * each field once and the reading of a row and the writing of its values cannot drift apart. The
 * columns that need more (JSON, the codec, derived values) stay with their mappers.
 */

/** The column of a field: its name in snake case (`createdAt` → `created_at`). */
export type ColumnOf<F extends string> = F extends `${infer H}${infer Rest}`
  ? `${H extends Lowercase<H> ? H : `_${Lowercase<H>}`}${ColumnOf<Rest>}`
  : F;

/** The column of `field` ({@link ColumnOf}). */
export function columnOf<F extends string>(field: F): ColumnOf<F> {
  return field.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`) as ColumnOf<F>;
}

/** The fields of `T` whose column in `R` holds values of the field's type as they are. */
type AsIsField<T, R> = {
  [K in keyof T & string]-?: ColumnOf<K> extends keyof R ? ([R[ColumnOf<K>]] extends [T[K]] ? K : never) : never;
}[keyof T & string];

/** The fields of `T` whose column in `R` holds values of the field's type, or NULL. */
type NullableField<T, R> = {
  [K in keyof T & string]-?: ColumnOf<K> extends keyof R ? ([Exclude<R[ColumnOf<K>], null | undefined>] extends [T[K]] ? K : never) : never;
}[keyof T & string];

/** Both directions of the fields `F` of `T`, held by the columns of `R`. */
export interface PlainMapping<T, R, F extends keyof T & string> {
  /** The fields of a row: each column's value, or the field's fallback for NULL (or absent). */
  fromRow(row: R): Pick<T, F>;
  /** The values of the columns: each field's value, or its fallback when the value is null or undefined. */
  toRow(object: Pick<T, F>): Record<ColumnOf<F>, unknown>;
}

/**
 * The mapping of the fields of `T` that the columns of the row `R` hold as they are: `asIs`, the
 * fields copied both ways, and `fallbacks`, those whose NULL column reads (and whose absent value
 * writes) the value given. Curried, so that `T` and `R` are given and the fields are inferred, each
 * checked at compile time against the type of its column:
 * `plainFields<CronJobRecord, CronJobRow>()(['nextInvocation'], { jitterMs: 0 })`.
 */
export function plainFields<T, R>() {
  return <const A extends AsIsField<T, R>, const B extends NullableField<T, R> = never>(
    asIs: readonly A[],
    fallbacks: { readonly [K in B]: T[K] } = {} as { [K in B]: T[K] },
  ): PlainMapping<T, R, A | B> => {
    const entries = [
      ...asIs.map((field) => ({ field, column: columnOf(field), orElse: false, fallback: undefined as unknown })),
      ...Object.entries(fallbacks).map(([field, fallback]) => ({ field, column: columnOf(field), orElse: true, fallback })),
    ];
    const copy = (source: Record<string, unknown>, from: 'field' | 'column', to: 'field' | 'column') => {
      const out: Record<string, unknown> = {};
      for (const e of entries) out[e[to]] = e.orElse ? (source[e[from]] ?? e.fallback) : source[e[from]];
      return out;
    };
    return {
      fromRow: (row) => copy(row as Record<string, unknown>, 'column', 'field') as Pick<T, A | B>,
      toRow: (object) => copy(object as Record<string, unknown>, 'field', 'column') as Record<ColumnOf<A | B>, unknown>,
    };
  };
}
