#!/usr/bin/env node
import 'reflect-metadata';
import { Command } from 'commander';
import { registerAdminCommands } from './commands/admin.command';
import { fail } from './output';

async function main(): Promise<void> {
  const program = new Command('spanlog').description('Spanlog command line').showHelpAfterError();
  registerAdminCommands(program);
  await program.parseAsync(process.argv);
}

main().catch(fail);
