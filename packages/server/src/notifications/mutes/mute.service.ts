import type { CreateMuteBody, Mute } from '@debrief/protocol';
import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.js';
import { toWireTimestamp } from '../../db/wire-timestamp.js';
import { ApiError } from '../../errors/api-error.js';
import { newId } from '../../ids.js';
import { issueNotFound } from '../../issues/issue-read.service.js';
import { getOwnedProject, type OwnedProjects } from '../../projects/project.service.js';
import { HOUR_MS } from '../../time/utc-time.js';
import {
  deleteMuteRow,
  insertMute,
  issueReportCount,
  listIssueMutes,
  type MuteRow,
} from './mute.repository.js';

export interface MuteContext {
  db: Kysely<DB>;
  ownedProjects: OwnedProjects;
}

const ID = /^[0-9a-f]{32}$/;

async function ownedIssue(ctx: MuteContext, accountId: string, projectId: string, issueId: string) {
  const project = await getOwnedProject(ctx, accountId, projectId);
  const count = ID.test(issueId) ? await issueReportCount(ctx.db, project.id, issueId) : null;
  if (count === null) throw issueNotFound();
  return { projectId: project.id, reportCount: count };
}

function toWire(row: MuteRow, reportCount: number, now: Date): Mute {
  const until = row.until === null ? null : new Date(row.until);
  return {
    id: row.id,
    issue_id: row.issue_id,
    destination_id: row.destination_id,
    until: until === null ? null : toWireTimestamp(until),
    until_count: row.until_count === null ? null : Number(row.until_count),
    active:
      (until === null || until.getTime() > now.getTime()) &&
      (row.until_count === null || reportCount < Number(row.until_count)),
    created_at: toWireTimestamp(row.created_at),
  };
}

export async function listMutes(
  ctx: MuteContext,
  accountId: string,
  projectId: string,
  issueId: string,
): Promise<{ data: Mute[] }> {
  const issue = await ownedIssue(ctx, accountId, projectId, issueId);
  const now = new Date();
  const rows = await listIssueMutes(ctx.db, issue.projectId, issueId);
  return { data: rows.map((row) => toWire(row, issue.reportCount, now)) };
}

/** Mutes an issue: "for 24 h" is `hours`, "until it happens 10 more times" is `reports`. */
export async function createMute(
  ctx: MuteContext,
  accountId: string,
  projectId: string,
  issueId: string,
  body: CreateMuteBody,
): Promise<Mute> {
  const issue = await ownedIssue(ctx, accountId, projectId, issueId);
  const now = new Date();
  const row: MuteRow = {
    id: newId(),
    project_id: issue.projectId,
    issue_id: issueId,
    destination_id: body.destination_id ?? null,
    until: body.hours === undefined ? null : new Date(now.getTime() + body.hours * HOUR_MS),
    until_count: body.reports === undefined ? null : issue.reportCount + body.reports,
    created_at: now,
  };
  await insertMute(ctx.db, row);
  return toWire(row, issue.reportCount, now);
}

export async function deleteMute(
  ctx: MuteContext,
  accountId: string,
  projectId: string,
  issueId: string,
  muteId: string,
): Promise<void> {
  const issue = await ownedIssue(ctx, accountId, projectId, issueId);
  if (!ID.test(muteId) || !(await deleteMuteRow(ctx.db, issue.projectId, issueId, muteId)))
    throw new ApiError(
      'not_found',
      'No mute with this id on this issue. List them with GET …/issues/{issueId}/mutes.',
    );
}
