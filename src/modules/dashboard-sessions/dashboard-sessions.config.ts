import { defineGroup, integerSetting } from '../../lib/settings.ts';

/** The dashboard's sign-in sessions (docs/dashboard.md). */

export const dashboardSettings = defineGroup('Dashboard', {
  dashboardSessionIdleMinutes: integerSetting('DASHBOARD_SESSION_IDLE_MINUTES', {
    default: 30,
    min: 1,
    max: 24 * 60,
    description: 'A dashboard session ends this many minutes after its last request (1 to 1440)',
  }),
  dashboardSessionAbsoluteHours: integerSetting('DASHBOARD_SESSION_ABSOLUTE_HOURS', {
    default: 12,
    min: 1,
    max: 7 * 24,
    description:
      'A dashboard session ends this many hours after sign-in, whatever happens (1 to 168); the cookie expires with it',
  }),
});
