import * as v from 'valibot';

/**
 * `v.maxLength` for text, counted in characters (code points) as JSON Schema, PostgreSQL and the
 * quote page count them, not in UTF-16 units: 200 emoji are 200 characters, not 400. It keeps
 * `maxLength`'s type and requirement, so the generated JSON Schema still states the limit.
 */
export function maxChars<TInput extends string, const TRequirement extends number>(
  requirement: TRequirement,
  // Required: valibot's own message would give the length in UTF-16 units.
  message: string,
) {
  const action = v.maxLength<TInput, TRequirement, string>(requirement, message);
  return {
    ...action,
    '~run'(dataset: Parameters<(typeof action)['~run']>[0], config: Parameters<(typeof action)['~run']>[1]) {
      // A string within the limit in UTF-16 units is within it in characters: count only beyond.
      if (dataset.typed && dataset.value.length > requirement && countChars(dataset.value) > requirement) {
        return action['~run'](dataset, config);
      }
      return dataset;
    },
  } satisfies typeof action;
}

/** Characters (code points) in `text`, as a person counts them, without building an array of them. */
export function countChars(text: string): number {
  let count = 0;
  for (const _ of text) count++;
  return count;
}
