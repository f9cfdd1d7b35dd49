import { Logger } from '@nestjs/common';

// Unit tests exercise services outside an application: their warnings would go to Nest's console logger.
Logger.overrideLogger(false);
