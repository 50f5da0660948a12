import type { Outcome, Project, ReportStats } from '@debrief/protocol';

/**
 * Shapes of the session-authenticated dashboard API (see "Dashboard JSON API" in the team
 * contract). The public wire types (Report, ReportList, Project) come from @debrief/protocol.
 */
export interface Usage {
  month: string;
  used: number;
  /** null = unlimited */
  limit: number | null;
}

export type Signups = 'open' | 'closed';

export interface Session {
  account: { id: string; email: string };
  csrf_token: string;
  signups: Signups;
  usage: Usage;
}

export interface AuthConfig {
  signups: Signups;
  public_url: string;
}

export type OutcomeCounts = Record<Outcome, number>;

export interface ConsoleProject extends Project {
  last_7_days: ReportStats;
}

export interface CreatedProject {
  project: Project;
  ingest_key: string;
}

export interface ApiKeySummary {
  id: string;
  name: string;
  prefix: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

export interface CreatedApiKey {
  id: string;
  name: string;
  prefix: string;
  created_at: string;
  key: string;
}

export interface TimeseriesDay extends OutcomeCounts {
  date: string;
}

export interface Timeseries {
  days: TimeseriesDay[];
}

export interface ToolStats extends OutcomeCounts {
  tool_name: string | null;
  total: number;
  success_rate: number;
}

export interface ToolsSummary {
  tools: ToolStats[];
}

export interface Integration {
  public_url: string;
  ingest_key: string;
  skill_block: string;
  mcp_snippet: string;
  express_snippet: string;
  openapi_fragment: string;
}
