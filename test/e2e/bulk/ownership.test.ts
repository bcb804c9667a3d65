/**
 * A bulk run belongs to the person who started it: only their executions send its requests,
 * with their key; another editor sees its progress read-only, spends nothing, and can neither stop it (not even by
 * having no key) nor pause, resume or cancel it. Two users, and their executions at once.
 */
import type { ExecutionResult } from '../../../emulator';
import {
  API_KEY_PROPERTY,
  EDITOR,
  EDITOR_KEY,
  EDITOR_ORG,
  ORG,
  OWNER,
  startWorld,
  url,
  type World,
} from '../../support/harness';
import { chargedTwice, drive, mismatches, type ProgressView, start } from './helpers';

let world: World | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

const NOT_YOURS = `This run was started by ${OWNER}; only they can run, pause or resume it.`;

function rows(count: number, prefix: string): string[][] {
  return Array.from({ length: count }, (_, i) => [url(`${prefix}-${i}`)]);
}

function progressOf(result: ExecutionResult): ProgressView {
  if (!result.ok) throw new Error(`execution failed: ${result.error?.message}`);
  return result.value as ProgressView;
}

function organizations(w: World): string[] {
  return [...new Set(w.sandbox.service.ledger().map((entry) => entry.organization ?? '?'))];
}

describe('a bulk run belongs to its starter', () => {
  it("another editor's executions at the same time never send its requests nor stop it; only the starter pays", async () => {
    world = await startWorld({
      data: [['Profile'], ...rows(30, 'oda-park')],
      // Short slices over a slow service, so the two users' executions overlap.
      scriptProperties: { ENRICH_BATCH_SIZE: '5', ENRICH_STEP_BUDGET_MS: '1' },
      faults: { latencyMs: 200 },
      env: { deployment: 'test' },
    });
    // The editor has no key: a slice of theirs used to halt the run with "No API key is saved for you".
    expect(world.env.userProperties(EDITOR).get(API_KEY_PROPERTY)).toBeNull();
    expect((await start(world, 'A1:A31')).state).toBe('running');
    for (let round = 0; round < 3; round++) {
      const [mine, theirs] = await Promise.all([
        world.env.execute('continueEnrichment', [], world.as(OWNER)),
        world.env.execute('continueEnrichment', [], world.as(EDITOR)),
      ]);
      expect(progressOf(mine)).toMatchObject({ state: 'running' });
      expect(progressOf(mine).readOnly).toBeUndefined();
      expect(progressOf(theirs)).toMatchObject({ state: 'running', readOnly: true, startedBy: OWNER });
    }
    // Alone (no slice of the owner's holds the run), the editor's sidebar call still changes nothing.
    const sent = world.sandbox.service.ledger().length;
    const alone = (await world.env.run('continueEnrichment', [], world.as(EDITOR))) as ProgressView;
    expect(alone).toMatchObject({ state: 'running', readOnly: true, startedBy: OWNER });
    expect(alone.message).not.toMatch(/API key/);
    expect(world.sandbox.service.ledger()).toHaveLength(sent);
    // The editor sees the run as it is, read-only.
    const seen = (await world.env.run('getEnrichmentProgress', [], world.as(EDITOR))) as ProgressView;
    expect(seen).toMatchObject({ state: 'running', readOnly: true, startedBy: OWNER });
    const done = await drive(world);
    expect(done.state).toBe('done');
    expect(organizations(world)).toEqual([ORG]);
    expect(chargedTwice(world)).toEqual([]);
    expect(Object.keys(world.charges())).toHaveLength(30);
    expect(mismatches(world.env.values(world.ss.id, 'A2:D31'))).toEqual([]);
  });

  it("an editor with a key of their own spends nothing on the owner's run, and cannot pause, resume or cancel it", async () => {
    world = await startWorld({
      data: [['Profile'], ...rows(20, 'pia-roe')],
      scriptProperties: { ENRICH_BATCH_SIZE: '5', ENRICH_STEP_BUDGET_MS: '1' },
      env: { deployment: 'test' },
    });
    world.env.userProperties(EDITOR).set({ [API_KEY_PROPERTY]: EDITOR_KEY });
    const editorCredits = world.sandbox.service.credits(EDITOR_ORG);
    const first = await start(world, 'A1:A21');
    expect(first.state).toBe('running');
    const before = world.sandbox.service.ledger().length;
    for (let call = 0; call < 3; call++) {
      const theirs = (await world.env.run('continueEnrichment', [], world.as(EDITOR))) as ProgressView;
      expect(theirs).toMatchObject({ readOnly: true, processed: first.processed });
    }
    expect(world.sandbox.service.ledger()).toHaveLength(before);
    // Pause and Cancel by the editor are refused and change nothing.
    for (const control of ['pauseEnrichment', 'cancelEnrichment', 'resumeEnrichment']) {
      const refused = await world.env.execute(control, [], world.as(EDITOR));
      expect(refused.ok).toBe(false);
      expect(refused.error?.message).toContain(NOT_YOURS);
    }
    expect(((await world.env.run('getEnrichmentProgress', [], world.as())) as ProgressView).state).toBe(
      'running',
    );
    // Paused by its starter, the run cannot be resumed by the editor either.
    expect(((await world.env.run('pauseEnrichment', [], world.as())) as ProgressView).state).toBe('paused');
    const resume = await world.env.execute('resumeEnrichment', [], world.as(EDITOR));
    expect(resume.ok).toBe(false);
    expect(resume.error?.message).toContain(NOT_YOURS);
    expect(((await world.env.run('getEnrichmentProgress', [], world.as(EDITOR))) as ProgressView).state).toBe(
      'paused',
    );
    // The editor's menu start while it is under way says whose it is, and starts nothing.
    world.env.select(world.ss.id, 'A1:A21');
    const menu = (await world.env.run('enrichSelection', [], world.as(EDITOR))) as ProgressView;
    expect(menu).toMatchObject({ state: 'paused', readOnly: true });
    expect(menu.message).toContain(NOT_YOURS);
    // The starter resumes and finishes it with their key alone.
    await world.env.run('resumeEnrichment', [], world.as());
    expect((await drive(world)).state).toBe('done');
    expect(organizations(world)).toEqual([ORG]);
    expect(world.sandbox.service.credits(EDITOR_ORG)).toBe(editorCredits);
    expect(mismatches(world.env.values(world.ss.id, 'A2:D21'))).toEqual([]);
    // The starter's own id is kept in their user properties only.
    expect(world.env.userProperties(EDITOR).get('PEF_RUNNER_ID')).toBeNull();
    expect(world.env.userProperties(OWNER).get('PEF_RUNNER_ID')).toMatch(/\S{8,}/);
  });

  it('a run the editor starts is theirs: their key pays, and the owner only watches', async () => {
    world = await startWorld({
      data: [['Profile'], ...rows(6, 'quy-sato')],
      env: { deployment: 'test' },
    });
    world.env.userProperties(EDITOR).set({ [API_KEY_PROPERTY]: EDITOR_KEY });
    world.env.select(world.ss.id, 'A1:A7');
    const started = (await world.env.run('enrichSelection', [], world.as(EDITOR))) as ProgressView;
    expect(started.readOnly).toBeUndefined();
    const owners = (await world.env.run('getEnrichmentProgress', [], world.as(OWNER))) as ProgressView;
    if (owners.state !== 'done') expect(owners).toMatchObject({ readOnly: true, startedBy: EDITOR });
    let progress = started;
    for (let slice = 0; slice < 20 && progress.state === 'running'; slice++) {
      progress = (await world.env.run('continueEnrichment', [], world.as(EDITOR))) as ProgressView;
    }
    expect(progress.state).toBe('done');
    expect(organizations(world)).toEqual([EDITOR_ORG]);
  });
});
