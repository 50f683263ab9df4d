// The local servers' packages ship no types; the project uses them only through local/.
declare module 'dynalite';
declare module 's3rver';
