import type { DataSource } from 'typeorm';
import {
  ScimDirectoryRepository,
  STATISTICS_FIRST_REFRESH,
  STATISTICS_REFRESH_GROWTH,
} from './scim-directory.repository';

describe('ScimDirectoryRepository.noteCreated (planner statistics after a sync grows an organization)', () => {
  const setup = () => {
    const query = jest.fn(async (_sql: string) => [] as unknown[]);
    const repo = new ScimDirectoryRepository({ query } as unknown as DataSource);
    const create = async (organizationId: string, times: number) => {
      for (let i = 0; i < times; i++) repo.noteCreated(organizationId);
      await new Promise((resolve) => setImmediate(resolve)); // the background ANALYZE settles
    };
    return { query, create };
  };

  it('analyzes the directory tables once an organization has gained the first threshold, then at each growth', async () => {
    const { query, create } = setup();
    await create('org-a', STATISTICS_FIRST_REFRESH - 1);
    expect(query).not.toHaveBeenCalled();
    await create('org-a', 1);
    expect(query).toHaveBeenCalledTimes(1);
    expect(query.mock.calls[0][0]).toBe('ANALYZE memberships, scim_members');
    const second = STATISTICS_FIRST_REFRESH * STATISTICS_REFRESH_GROWTH;
    await create('org-a', second - STATISTICS_FIRST_REFRESH - 1);
    expect(query).toHaveBeenCalledTimes(1);
    await create('org-a', 1);
    expect(query).toHaveBeenCalledTimes(2);
  });

  it('counts each organization apart', async () => {
    const { query, create } = setup();
    await create('org-a', STATISTICS_FIRST_REFRESH - 1);
    await create('org-b', STATISTICS_FIRST_REFRESH - 1);
    expect(query).not.toHaveBeenCalled();
    await create('org-b', 1);
    expect(query).toHaveBeenCalledTimes(1);
  });

  it('a failed ANALYZE (no ownership of the tables) is logged, not thrown, and a later threshold tries again', async () => {
    const { query, create } = setup();
    query.mockRejectedValueOnce(new Error('must be owner of table memberships'));
    await create('org-a', STATISTICS_FIRST_REFRESH);
    expect(query).toHaveBeenCalledTimes(1);
    await create('org-a', STATISTICS_FIRST_REFRESH * (STATISTICS_REFRESH_GROWTH - 1));
    expect(query).toHaveBeenCalledTimes(2);
  });
});
