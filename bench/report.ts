import { cpus, totalmem } from 'node:os';
import type { LoadResult } from './load.js';
import type { ReadResult } from './read.bench.js';

export const INGEST_TARGET = 0.4;
export const READ_P99_TARGET_MS = 50;

export interface IngestRound {
  bare: LoadResult;
  debrief: LoadResult;
}

export interface IngestRow {
  dialect: string;
  rounds: IngestRound[];
}

const ratioOf = (round: IngestRound) =>
  round.debrief.requestsPerSecond / round.bare.requestsPerSecond;

export const percent = (ratio: number) => `${(ratio * 100).toFixed(0)}%`;

/** The round whose throughput ratio is the median (the upper one of an even count). */
export function medianRound(rounds: IngestRound[]): IngestRound {
  const sorted = [...rounds].sort((a, b) => ratioOf(a) - ratioOf(b));
  const median = sorted[Math.floor(sorted.length / 2)];
  if (!median) throw new Error('no ingest rounds were run');
  return median;
}

const fmt = (n: number) => Math.round(n).toLocaleString('en');
const cpu = (r: LoadResult) =>
  r.cpuMicrosPerRequest === null ? 'n/a' : Math.round(r.cpuMicrosPerRequest).toString();

export function machineLine(): string {
  const cpu = cpus();
  return `Node ${process.version}, ${process.platform}/${process.arch}, ${cpu.length} × ${cpu[0]?.model.trim() ?? 'CPU'}, ${Math.round(totalmem() / 2 ** 30)} GiB RAM`;
}

export function ingestTable(rows: IngestRow[]): string {
  const lines = [
    '| Ingest (POST /v1/reports, 50 connections, no pipelining) | req/s | p50 ms | p99 ms | errors | server CPU µs/req | throughput ratio | CPU ratio | target (throughput ≥ 40%) |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |',
  ];
  const notes: string[] = [];
  for (const { dialect, rounds } of rows) {
    const { bare, debrief } = medianRound(rounds);
    const ratio = ratioOf({ bare, debrief });
    const cpuRatio =
      bare.cpuMicrosPerRequest && debrief.cpuMicrosPerRequest
        ? percent(bare.cpuMicrosPerRequest / debrief.cpuMicrosPerRequest)
        : 'n/a';
    const met = ratio >= INGEST_TARGET;
    lines.push(
      `| bare node:http (JSON.parse, 201) | ${fmt(bare.requestsPerSecond)} | ${bare.p50Ms} | ${bare.p99Ms} | ${bare.failures} | ${cpu(bare)} | | | |`,
      `| Debrief on ${dialect} | ${fmt(debrief.requestsPerSecond)} | ${debrief.p50Ms} | ${debrief.p99Ms} | ${debrief.failures} | ${cpu(debrief)} | **${(ratio * 100).toFixed(1)}%** | ${cpuRatio} | ${dialect === 'sqlite' ? (met ? 'met' : 'MISSED') : 'info'} |`,
    );
    notes.push(
      `${dialect}: median of ${rounds.length} alternating rounds; throughput ratio per round ${rounds.map((round) => percent(ratioOf(round))).join(', ')}.`,
    );
  }
  lines.push('', ...notes);
  return lines.join('\n');
}

export function readTable(dialect: string, rows: ReadResult[], connections: number): string {
  const lines = [
    `| Read on ${dialect} (100,000 reports, page 1 + stats, ${connections} connections) | req/s | p50 ms | p99 ms | errors | server CPU µs/req | p99 target |`,
    '| --- | ---: | ---: | ---: | ---: | ---: | --- |',
  ];
  for (const r of rows) {
    lines.push(
      `| ${r.scenario} | ${fmt(r.requestsPerSecond)} | ${r.p50Ms} | ${r.p99Ms} | ${r.failures} | ${cpu(r)} | ${r.p99Ms <= READ_P99_TARGET_MS ? 'met (≤ 50 ms)' : 'MISSED (≤ 50 ms)'} |`,
    );
  }
  return lines.join('\n');
}
