#!/usr/bin/env node
import 'reflect-metadata';
import { Command } from 'commander';
import { registerAdminCommands } from './commands/admin.command';
import { registerAlertsCommands } from './commands/alerts.command';
import { registerCostsCommands } from './commands/costs.command';
import { registerDatasetsCommands } from './commands/datasets.command';
import { registerModelsCommands } from './commands/models.command';
import { registerDlqCommands } from './commands/dlq.command';
import { registerEvaluatorsCommands } from './commands/evaluators.command';
import { registerEventsCommands } from './commands/events.command';
import { registerKeysCommands } from './commands/keys.command';
import { registerOrgCommands } from './commands/orgs.command';
import { registerPromptsCommands } from './commands/prompts.command';
import { registerOtlpCommands } from './commands/otlp.command';
import { registerRebuildCommand } from './commands/rebuild.command';
import { registerReplayCommand } from './commands/replay.command';
import { registerSessionCommands } from './commands/session.command';
import { registerTracesCommands } from './commands/traces.command';
import { registerTuiCommand } from './commands/tui.command';
import { registerUsageCommands } from './commands/usage.command';
import { registerVerifyCommand } from './commands/verify.command';
import { fail } from './output';

async function main(): Promise<void> {
  const program = new Command('spanlog').description('Spanlog command line').showHelpAfterError();
  registerSessionCommands(program);
  registerOrgCommands(program);
  registerKeysCommands(program);
  registerEvaluatorsCommands(program);
  registerTracesCommands(program);
  registerPromptsCommands(program);
  registerDatasetsCommands(program);
  registerUsageCommands(program);
  registerCostsCommands(program);
  registerAlertsCommands(program);
  registerModelsCommands(program);
  registerTuiCommand(program);
  registerRebuildCommand(program);
  registerVerifyCommand(program);
  registerOtlpCommands(program);
  registerReplayCommand(program);
  registerEventsCommands(program);
  registerDlqCommands(program);
  registerAdminCommands(program);
  await program.parseAsync(process.argv);
}

main().catch(fail);
