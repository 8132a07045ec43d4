/**
 * The dispatcher's report: one `step` per step of the episode it plays, in the shape every
 * node driving an environment reports (app/environments/step-report.ts).
 */
export {
  type EnvironmentStepReport as StepReport,
  stepReportSchema as stepReport,
} from '../../app/environments/step-report.ts';
