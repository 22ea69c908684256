// What the job kernel's watchdog did for a job, as one line for any job page ("" when it did
// nothing): the last recovery's note, and how many there were when more than one.
export function recoveryText(job) {
  if (!job || !job.recoveries) return "";
  const times = job.recoveries > 1 ? ` (${job.recoveries} recoveries)` : "";
  return `Recovered: ${job.recovery_note || "work sent again"}${times}.`;
}
