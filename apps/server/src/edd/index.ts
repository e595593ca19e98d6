// The estimated-delivery-date predictor (issue 32, decision 114): pure, no database or I/O.
export { addBusinessDays, businessDaysBetween, calendarFor, type BusinessCalendar, type CalendarCountry } from './calendar.ts';
export { DeliveryPredictor, defaultCalendar } from './predictor.ts';
export type {
  DeliveredFacts,
  DeliveryPrediction,
  EstimatedDelivery,
  Level,
  PredictionTrace,
  PredictorOptions,
  ShipmentFacts,
} from './predictor.ts';
export { canadianProvince, destinationCountry, isCanadianPostal, postalAreas, type PostalAreas } from './postal.ts';
export { createDeliveryPredictions, LATE_MIN_SAMPLES, type DeliveryPredictions, type HistoryLate } from './history.ts';
