import { type InjectionToken } from 'tsyringe';
import { type KubeConfig } from '@kubernetes/client-node';
import { type EventSink, type Manager } from '@steward/controller';
import { type Telemetry } from '@steward/telemetry';
import { type Config } from './config.js';

/** One injection token per interface the process is assembled from. */
export const Tokens = {
  Config: Symbol('Config') as InjectionToken<Config>,
  KubeConfig: Symbol('KubeConfig') as InjectionToken<KubeConfig>,
  Telemetry: Symbol('Telemetry') as InjectionToken<Telemetry>,
  EventSink: Symbol('EventSink') as InjectionToken<EventSink & { shutdown(): Promise<void> }>,
  Manager: Symbol('Manager') as InjectionToken<Manager>,
} as const;
