// The activity log in words: what each recorded action means to the person ("Edited your
// profile"), from the action the service names, or else from the method and route it records
// ("GET /discovery/profile/me/revisions"). The route stays shown beside the words.

const ACTIONS = {
  'account.delete': 'Deleted your account',
  'account.export': 'Downloaded your data',
  'api_key.create': 'Created an API key',
  'api_key.revoke': 'Revoked an API key',
  'auth.dev_login': 'Signed in (dev login)',
  'auth.login': 'Signed in',
  'auth.login_start': 'Started signing in',
  'auth.logout': 'Signed out',
  'auth.refresh': 'Stayed signed in',
  'checkin.create': 'Asked for a check-in',
  'checkin.respond': 'Answered a check-in',
  'coaching.run': 'Ran the check-ins',
  'conversation.answer': 'Answered a prompt',
  'conversation.complete': 'Completed the discovery',
  'conversation.start': 'Started the discovery',
  'mapping_rule.create': 'Added a rule',
  'mapping_rule.delete': 'Deleted a rule',
  'mapping_rule.replace': 'Changed a rule',
  'notifications.unsubscribe': 'Unsubscribed from e-mail',
  'notifications.update': 'Changed your e-mail setting',
  'preferences.regenerate': 'Reset your coaching preferences',
  'preferences.set': 'Changed your coaching preferences',
  'profile.affirm': 'Affirmed your profile',
  'profile.edit': 'Edited your profile',
  'profile.reflect': 'Reflected with the coach',
  'profile.reflect_preview': 'Previewed a reflection',
  'profile.reopen': 'Reopened your profile',
  'profile.restore': 'Restored a version of your profile',
  'session.revoke': 'Signed out a device',
  'settings.update': 'Changed your time zone',
  'task_mapping.batch': 'Logged time (several entries)',
  'task_mapping.delete': 'Deleted a time entry',
  'task_mapping.upsert': 'Logged time',
  'webhook.create': 'Added a webhook',
  'webhook.delete': 'Deleted a webhook',
  'webhook.test': 'Tested a webhook',
};

/** Reads, by route (`GET <pattern>` as the log records it), longest prefix first. */
const READS = [
  ['/discovery/profile/me/revisions', 'Looked at your profile’s history'],
  ['/discovery/profile/me/reflection', 'Read the reflection'],
  ['/discovery/profile/me', 'Looked at your profile'],
  ['/discovery/conversation/me', 'Looked at your answers'],
  ['/discovery/prompts', 'Read the prompts'],
  ['/coaching/checkins', 'Looked at your check-ins'],
  ['/coaching/preferences', 'Looked at your coaching preferences'],
  ['/integration/work-patterns', 'Looked at where your time went'],
  ['/integration/unmapped', 'Looked at your unclassified time'],
  ['/integration/rules', 'Looked at your rules'],
  ['/integration/reclassification', 'Checked the re-classification'],
  ['/integration/task-mappings', 'Looked at your time entries'],
  ['/integration/foundations', 'Read the six foundations'],
  ['/api/me/api-keys', 'Looked at your API keys'],
  ['/api/me/sessions', 'Looked at where you are signed in'],
  ['/api/me/webhooks', 'Looked at your webhooks'],
  ['/api/me/notifications', 'Looked at your e-mail setting'],
  ['/api/me/settings', 'Looked at your time zone'],
  ['/api/me/stats', 'Looked at your account’s numbers'],
  ['/api/activity', 'Looked at this activity log'],
  ['/api/me', 'Looked at your account'],
];

/** The words for one entry of `GET /api/activity`. */
export function activityWords(entry) {
  if (ACTIONS[entry.action]) return ACTIONS[entry.action];
  const [method, route = ''] = String(entry.action || '').split(' ');
  if (method === 'GET' || method === 'HEAD') {
    const read = READS.find(([prefix]) => route === prefix || route.startsWith(`${prefix}/`));
    if (read) return read[1];
    return 'Looked something up';
  }
  return 'Used the service';
}
