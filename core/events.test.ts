import { describe, expect, it } from 'vitest';
import { INPUT_EVENT_TYPES, isChurnEvent, type InputEvent } from './events.ts';

describe('churn events', () => {
  // The config manager handles routes, endpoints and blueprints (RouterController's HandleRoute,
  // HandleEndpoints and the blueprint plugin); every other type concerns nodes, keepalived or the network.
  it.each(INPUT_EVENT_TYPES)('%s is churn exactly when it is a route, endpoints or blueprint event', (type) => {
    const churn = type.startsWith('route.') || type.startsWith('endpoints.') || type.startsWith('blueprint.');
    expect(isChurnEvent({ type } as InputEvent)).toBe(churn);
  });
});
