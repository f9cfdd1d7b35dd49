/** The passkeys area's public surface: its module (nothing else is used by other areas). */
export { PasskeysModule } from './passkeys.module';
