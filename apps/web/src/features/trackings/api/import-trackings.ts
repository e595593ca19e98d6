import { useQueryClient } from '@tanstack/react-query';
import { userInfoKey } from '../../../lib/user-info';
import { request } from '../../../lib/api-client';
import { useApiMutation } from '../../../lib/use-api-mutation';
import { trackingsKey } from './get-trackings';

import type { ImportReport } from '@shiptrail/contract';

export type ImportResult = ImportReport;

export function importTrackings(file: File) {
  const body = new FormData();
  body.append('file', file);
  return request<ImportResult>('/v1/trackings/import', { method: 'POST', body });
}

export function useImportTrackings() {
  const qc = useQueryClient();
  return useApiMutation(importTrackings, {
    titles: { success: 'Imported', error: 'Could not import' },
    onSuccess: () => {
      void qc.invalidateQueries({ queryKey: trackingsKey });
      void qc.invalidateQueries({ queryKey: userInfoKey });
    },
  });
}
