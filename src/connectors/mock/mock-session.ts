import type {
  ClientSessionOutcome,
  ClientSessionRequest,
  ConnectorDefinition,
  IntegrationClient,
} from '../connector.ts';

/**
 * The client session of the sandbox connectors: the approval or 3DS challenge page this server
 * serves, with what a front end needs to open it (full page, popup or frame). The pages are plain
 * web pages, so a session is for `redirect` or `web`; another requested client gets `redirect`. The
 * sandbox session has nothing a client could change: a payload is refused.
 */
export function sandboxPageSession(
  definition: ConnectorDefinition,
  request: ClientSessionRequest,
): ClientSessionOutcome {
  const supported: IntegrationClient[] = definition.supportedIntegrationClients ?? ['redirect', 'web'];
  const integrationClient =
    request.integrationClient && supported.includes(request.integrationClient) ? request.integrationClient : 'redirect';
  if (request.payload !== null && Object.keys(request.payload).length > 0) {
    return {
      status: 'update_refused',
      sessionData: null,
      integrationClient,
      message: `The ${definition.displayName} session takes no update: send no payload, or an empty one`,
    };
  }
  const { approval_ui_target: target, approval_ui_width: width, approval_ui_height: height } = definition.configuration;
  return {
    status: 'succeeded',
    sessionData: {
      approval_url: request.approvalUrl,
      approval_target: target,
      approval_ui_width: width,
      approval_ui_height: height,
      expires_at: request.approvalExpiresAt.toISOString(),
    },
    integrationClient,
    message: null,
  };
}
