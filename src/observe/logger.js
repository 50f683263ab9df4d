/**
 * The one logger of the function: Powertools for AWS Lambda, one JSON object a line with the Lambda
 * context. Log fields are counts and names, never row contents.
 */
import { Logger } from '@aws-lambda-powertools/logger';

export const logger = new Logger({ serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? 'csv-import' });
