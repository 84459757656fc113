import '../../infra/local/install-awslambda.ts';
