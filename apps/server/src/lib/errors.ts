/** The one error type services throw; the error handler turns it into the /v1 envelope (ARCHITECTURE §3). */
export class AppError extends Error {
  readonly httpStatus: number;
  readonly code: string;
  readonly payload: unknown;
  readonly headers: Record<string, string>;

  constructor(httpStatus: number, message: string, code = 'error', payload: unknown = null, headers: Record<string, string> = {}) {
    super(message);
    this.httpStatus = httpStatus;
    this.code = code;
    this.payload = payload;
    this.headers = headers;
  }
}

export const badRequest = (message: string, errors?: Record<string, string>) =>
  new AppError(400, message, 'bad_request', errors ? { errors } : null);
export const unauthorized = (message: string) => new AppError(401, message, 'unauthorized');
export const paymentRequired = (message: string) => new AppError(402, message, 'payment_required');
export const forbidden = (message: string) => new AppError(403, message, 'forbidden');
export const notFound = (message: string) => new AppError(404, message, 'not_found');
export const conflict = (message: string) => new AppError(409, message, 'conflict');
export const tooMany = (message: string, retryAfterSeconds: number) =>
  new AppError(429, message, 'rate_limited', null, { 'retry-after': String(Math.ceil(retryAfterSeconds)) });
export const unavailable = (message: string) => new AppError(503, message, 'unavailable');
