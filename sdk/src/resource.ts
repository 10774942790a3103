import { defaultResource, detectResources, envDetector, hostDetector, processDetector, resourceFromAttributes, type Resource } from '@opentelemetry/resources'
import type { SdkConfig } from './config.js'
import { OTHER, SIEVE_ATTR } from '@sieve/protocol'
import { SDK_NAME, SDK_VERSION } from './version.js'

/** Resource attributes: the standard detectors (OTEL_RESOURCE_ATTRIBUTES, host, process), then init's settings on top. */
export function buildResource(config: SdkConfig): Resource {
  const attributes: Record<string, string | number | boolean> = {
    ...config.resourceAttributes,
    [OTHER.serviceName]: config.serviceName,
    [OTHER.distroName]: SDK_NAME,
    [OTHER.distroVersion]: SDK_VERSION,
  }
  if (config.serviceVersion) attributes[OTHER.serviceVersion] = config.serviceVersion
  if (config.environment) attributes[OTHER.environment] = config.environment
  if (config.agentVersion) attributes[SIEVE_ATTR.agentVersion] = config.agentVersion
  if (config.promptVersion) attributes[SIEVE_ATTR.promptVersion] = config.promptVersion
  return defaultResource()
    .merge(detectResources({ detectors: [envDetector, hostDetector, processDetector] }))
    .merge(resourceFromAttributes(attributes))
}
