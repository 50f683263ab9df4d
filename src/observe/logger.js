/**
 * The one logger of the function: Powertools for AWS Lambda, one JSON object a line with the Lambda
 * context. Log fields are counts and names, never row contents.
 */
import { Logger } from '@aws-lambda-powertools/logger';

export const logger = new Logger({ serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? 'csv-import' });

// Under a test runner (DDBLOAD_LOGS_TO_CONSOLE, which vitest.config.js sets), the lines go through the
// global console, which the runner shows only for a test that fails; the lines are the same.
if (process.env.DDBLOAD_LOGS_TO_CONSOLE === 'true') Object.assign(logger, { console });
