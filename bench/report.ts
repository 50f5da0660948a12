import { cpus, totalmem } from 'node:os';
import type { LoadResult } from './load.js';
import type { ReadResult } from './read.bench.js';

export const INGEST_TARGET = 0.4;
export const READ_P99_TARGET_MS = 50;

export interface IngestRow {
  dialect: string;
  bare: LoadResult;
  debrief: LoadResult;
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
  for (const { dialect, bare, debrief } of rows) {
    const ratio = debrief.requestsPerSecond / bare.requestsPerSecond;
    const cpuRatio =
      bare.cpuMicrosPerRequest && debrief.cpuMicrosPerRequest
        ? `${((bare.cpuMicrosPerRequest / debrief.cpuMicrosPerRequest) * 100).toFixed(0)}%`
        : 'n/a';
    lines.push(
      `| bare node:http (JSON.parse, 201) | ${fmt(bare.requestsPerSecond)} | ${bare.p50Ms} | ${bare.p99Ms} | ${bare.failures} | ${cpu(bare)} | | | |`,
      `| Debrief on ${dialect} | ${fmt(debrief.requestsPerSecond)} | ${debrief.p50Ms} | ${debrief.p99Ms} | ${debrief.failures} | ${cpu(debrief)} | **${(ratio * 100).toFixed(0)}%** | ${cpuRatio} | ${dialect === 'sqlite' ? (ratio >= INGEST_TARGET ? 'met' : 'MISSED') : 'info'} |`,
    );
  }
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
