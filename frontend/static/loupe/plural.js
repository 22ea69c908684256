// Counted nouns for the pages' text: "1 error", "0 errors", "3 summaries" (never "1 errors").

// The noun for n: the singular for exactly one, else the plural (default: singular + "s").
export function plural(n, singular, pluralForm = `${singular}s`) {
  return Number(n) === 1 ? singular : pluralForm;
}

// "n noun": the count and its noun; a missing count is written "?".
export function counted(n, singular, pluralForm = `${singular}s`) {
  const shown = n === null || n === undefined || n === "" ? "?" : n;
  return `${shown} ${plural(n, singular, pluralForm)}`;
}
