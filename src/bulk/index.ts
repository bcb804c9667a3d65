/** The bulk run ("Find e-mails for the selected column"): the entry points src/main.ts exposes. */
export {
  cancelEnrichment,
  continueEnrichment,
  getEnrichmentProgress,
  pauseEnrichment,
  resumeEnrichment,
  sidebarClosed,
} from './controls';
export { enrichSelection, retryFailedRows, startRun } from './start';
