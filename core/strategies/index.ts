import type { RouterSettings } from '../../sim/settings.ts';
import type { RouterStrategy } from '../strategy.ts';
import { DcmAddDelStrategy } from './dcm-add-del.ts';
import { DcmSlotsStrategy } from './dcm-slots.ts';
import { ReloadAlwaysStrategy } from './reload-always.ts';

export { DcmAddDelStrategy } from './dcm-add-del.ts';
export { DcmSlotsStrategy } from './dcm-slots.ts';
export { ReloadAlwaysStrategy } from './reload-always.ts';

/** The subset of router settings the strategies read (structurally compatible with RouterSettings). */
export type StrategySettings = Pick<
  RouterSettings,
  'strategy' | 'maxDynamicServers' | 'blueprintPoolSize' | 'blueprintNamespace' | 'blueprints' | 'allowWildcardRoutes'
>;

/** A fresh strategy instance for one router replica. */
export function createStrategy(settings: StrategySettings): RouterStrategy {
  switch (settings.strategy) {
    case 'reload-always':
      return new ReloadAlwaysStrategy({ allowWildcardRoutes: settings.allowWildcardRoutes });
    case 'dcm-slots':
      return new DcmSlotsStrategy({
        maxDynamicServers: settings.maxDynamicServers,
        blueprintPoolSize: settings.blueprintPoolSize,
        customBlueprints: settings.blueprints,
        blueprintNamespace: settings.blueprintNamespace,
        allowWildcardRoutes: settings.allowWildcardRoutes,
      });
    case 'dcm-add-del':
      return new DcmAddDelStrategy({
        blueprintPoolSize: settings.blueprintPoolSize,
        customBlueprints: settings.blueprints,
        blueprintNamespace: settings.blueprintNamespace,
        allowWildcardRoutes: settings.allowWildcardRoutes,
      });
  }
}
