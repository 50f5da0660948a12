import type {
  ApiKeyInfo,
  ConsoleProject as ConsoleProjectSchema,
  CreatedApiKey as CreatedApiKeySchema,
  CreatedForwardingSecret as CreatedForwardingSecretSchema,
  CreatedInvitation as CreatedInvitationSchema,
  CreatedProject as CreatedProjectSchema,
  ForwardingSecretInfo,
  IntegrateInfo,
  InvitationInfo,
  ProjectLimitSettings,
  ProjectLimits as ProjectLimitsSchema,
  RedactionSettings as RedactionSettingsSchema,
  SessionInfo,
  SourceStats as SourceStatsSchema,
  ThrottledStats as ThrottledStatsSchema,
  Timeseries as TimeseriesSchema,
  ToolRates as ToolRatesSchema,
  ToolStats as ToolStatsSchema,
  Usage as UsageSchema,
} from '@debrief/protocol';

/**
 * The dashboard JSON API's shapes, inferred from the zod schemas the server validates with
 * (`@debrief/protocol` console.schema), under the names the UI reads best. Type-only imports:
 * nothing of zod reaches the bundle.
 */
export type Usage = UsageSchema;
export type Session = SessionInfo;
export type Signups = SessionInfo['signups'];
export type { AuthConfig } from '@debrief/protocol';
export type ConsoleProject = ConsoleProjectSchema;
export type CreatedProject = CreatedProjectSchema;
export type ApiKeySummary = ApiKeyInfo;
export type CreatedApiKey = CreatedApiKeySchema;
export type Timeseries = TimeseriesSchema;
export type TimeseriesDay = Timeseries['days'][number];
export type ToolsSummary = ToolStatsSchema;
export type ToolStats = ToolsSummary['tools'][number];
export type SourcesSummary = SourceStatsSchema;
export type Integration = IntegrateInfo;
export type LimitSettings = ProjectLimitSettings;
export type ProjectLimits = ProjectLimitsSchema;
export type ThrottledStats = ThrottledStatsSchema;
export type Invitation = InvitationInfo;
export type CreatedInvitation = CreatedInvitationSchema;
export type RedactionSettings = RedactionSettingsSchema;
export type ToolRates = ToolRatesSchema;
export type ToolRate = ToolRates['tools'][number];
export type VersionRate = NonNullable<ToolRates['versions']>[number];
export type ForwardingSecret = ForwardingSecretInfo;
export type CreatedForwardingSecret = CreatedForwardingSecretSchema;
