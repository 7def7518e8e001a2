/** Builds the database templates once per run; every test file copies from them. */
import type { TestProject } from 'vitest/node';
import {
  createNamedServerDatabase,
  dropNamedServerDatabase,
  serverUrl,
} from './helpers/database.ts';
import { buildTemplates, removeTemplates, type DatabaseTemplates } from './helpers/templates.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    databaseTemplates: DatabaseTemplates;
  }
}

export default async function setup(project: TestProject) {
  const templates = await buildTemplates(serverUrl, createNamedServerDatabase);
  project.provide('databaseTemplates', templates);
  return () => removeTemplates(templates, (name) => dropNamedServerDatabase(serverUrl!, name));
}
