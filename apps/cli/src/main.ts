#!/usr/bin/env node
import 'reflect-metadata';
import { Command } from 'commander';
import { registerAlertsCommands } from './commands/alerts.command';
import { registerCostsCommands } from './commands/costs.command';
import { registerDatasetsCommands } from './commands/datasets.command';
import { registerModelsCommands } from './commands/models.command';
import { registerEvaluatorsCommands } from './commands/evaluators.command';
import { registerKeysCommands } from './commands/keys.command';
import { registerOrgCommands } from './commands/orgs.command';
import { registerPromptsCommands } from './commands/prompts.command';
import { registerOtlpCommands } from './commands/otlp.command';
import { registerSessionCommands } from './commands/session.command';
import { registerTracesCommands } from './commands/traces.command';
import { registerTuiCommand } from './commands/tui.command';
import { registerUsageCommands } from './commands/usage.command';
import { fail } from './output';

/**
 * The operators' commands, which open the database or the event log: their modules load
 * typeorm, nats and the projections, about three times what a command of the API needs to
 * start, so they are loaded only when the command line may name one of them.
 */
async function registerOperatorCommands(program: Command): Promise<void> {
  const modules = await Promise.all([
    import('./commands/rebuild.command.js'),
    import('./commands/verify.command.js'),
    import('./commands/replay.command.js'),
    import('./commands/events.command.js'),
    import('./commands/dlq.command.js'),
    import('./commands/admin.command.js'),
  ]);
  const [rebuild, verify, replay, events, dlq, admin] = modules;
  rebuild.registerRebuildCommand(program);
  verify.registerVerifyCommand(program);
  replay.registerReplayCommand(program);
  events.registerEventsCommands(program);
  dlq.registerDlqCommands(program);
  admin.registerAdminCommands(program);
}

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
  registerOtlpCommands(program);
  // No program-level options: the first argument names the command (or asks for help).
  const named = process.argv[2];
  if (!program.commands.some((c) => c.name() === named || c.aliases().includes(named))) await registerOperatorCommands(program);
  await program.parseAsync(process.argv);
}

main().catch(fail);
