import { main } from './admin-cli';

void main(process.argv.slice(2)).then((code) => process.exit(code));
