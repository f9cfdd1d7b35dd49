// Moved to core (outbound webhooks check the same rule); re-exported for the certificates area.
export { isAllowedAddress } from '@/core/net/public-address';
