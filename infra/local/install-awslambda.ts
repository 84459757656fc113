import { installAwsLambdaGlobal } from './awslambda.ts';

// Imported first by every entry point that loads handlers.
installAwsLambdaGlobal();
