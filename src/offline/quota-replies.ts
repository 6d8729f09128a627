import type { FakeGeminiReply } from './fake-gemini-shapes.js';

/**
 * The 429s Google's services send, as the fakes reply them: each with the message and details the
 * real service writes (taken from answers seen in the wild), so clients read them as they would the
 * real ones. `seconds`: when the limit frees up.
 */

/** `17h32m5s`, as Google writes a reset in words. */
function hms(seconds: number): string {
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = seconds % 60;
  return `${h > 0 ? `${h}h` : ''}${h > 0 || m > 0 ? `${m}m` : ''}${s}s`;
}

/** The Gemini API, a key's daily request quota (free tier: 250 a day). */
export function apiDailyQuota(seconds: number): FakeGeminiReply {
  return {
    status: 429,
    message: `You exceeded your current quota, please check your plan and billing details. For more information on this error, head to: https://ai.google.dev/gemini-api/docs/rate-limits.\n* Quota exceeded for metric: generativelanguage.googleapis.com/generate_content_free_tier_requests, limit: 250, model: gemini-2.5-flash\nPlease retry in ${hms(seconds)}.`,
    details: [
      {
        '@type': 'type.googleapis.com/google.rpc.QuotaFailure',
        violations: [
          {
            quotaMetric: 'generativelanguage.googleapis.com/generate_content_free_tier_requests',
            quotaId: 'GenerateRequestsPerDayPerProjectPerModel-FreeTier',
            quotaDimensions: { location: 'global', model: 'gemini-2.5-flash' },
            quotaValue: '250',
          },
        ],
      },
      { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: `${seconds}s` },
    ],
  };
}

/** The Gemini API, a key's per-minute request quota. */
export function apiMinuteQuota(seconds: number): FakeGeminiReply {
  return {
    status: 429,
    message: `You exceeded your current quota, please check your plan and billing details.\n* Quota exceeded for metric: generativelanguage.googleapis.com/generate_content_free_tier_requests, limit: 10, model: gemini-2.5-flash\nPlease retry in ${seconds}.5s.`,
    details: [
      {
        '@type': 'type.googleapis.com/google.rpc.QuotaFailure',
        violations: [
          {
            quotaMetric: 'generativelanguage.googleapis.com/generate_content_free_tier_requests',
            quotaId: 'GenerateRequestsPerMinutePerProjectPerModel-FreeTier',
            quotaDimensions: { location: 'global', model: 'gemini-2.5-flash' },
            quotaValue: '10',
          },
        ],
      },
      { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: `${seconds}s` },
    ],
  };
}

/** Code Assist (Google sign-in): the day's quota of a model is spent. */
export function codeAssistDailyQuota(seconds: number, model = 'gemini-2.5-flash'): FakeGeminiReply {
  return {
    status: 429,
    message: `You have exhausted your capacity on this model. Your quota will reset after ${hms(seconds)}.`,
    details: [
      {
        '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
        reason: 'QUOTA_EXHAUSTED',
        domain: 'cloudcode-pa.googleapis.com',
        metadata: {
          uiMessage: 'true',
          model,
          quotaResetDelay: `${hms(seconds).slice(0, -1)}.25s`,
          quotaResetTimeStamp: new Date(Date.now() + seconds * 1000)
            .toISOString()
            .replace(/\.\d+Z$/, 'Z'),
        },
      },
      { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: `${seconds}.25s` },
    ],
  };
}

/** Code Assist (Google sign-in): too many requests this minute. */
export function codeAssistMinuteQuota(seconds: number): FakeGeminiReply {
  return {
    status: 429,
    message: 'Resource has been exhausted (e.g. check quota).',
    details: [
      {
        '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
        reason: 'RATE_LIMIT_EXCEEDED',
        domain: 'cloudcode-pa.googleapis.com',
        metadata: { uiMessage: 'true', model: 'gemini-2.5-flash' },
      },
      { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: `${seconds}s` },
    ],
  };
}

/** Vertex AI: the project's per-minute quota of a base model (it sends no details). */
export function vertexMinuteQuota(): FakeGeminiReply {
  return {
    status: 429,
    message:
      'Quota exceeded for aiplatform.googleapis.com/generate_content_requests_per_minute_per_project_per_base_model with base model: gemini-2.5-flash. Please submit a quota increase request. https://cloud.google.com/vertex-ai/docs/generative-ai/quotas-genai.',
  };
}
