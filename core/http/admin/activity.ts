/** The Actividad screen's feed (CONTRACT §14): `?book=` and `?type=event|signing`. */
import { recentActivity } from '../../activity/index.js';
import type { Store } from '../../db/index.js';
import { SelloError } from '../../errors/index.js';
import type { Route } from '../context.js';
import { bookParam } from './book-param.js';

export function activityAdminRoutes(store: Store): Route[] {
  return [
    {
      method: 'GET',
      path: '/admin/api/activity',
      surface: 'admin',
      auth: 'admin',
      handler(ctx) {
        const { book, type } = ctx.query;
        if (type !== undefined && type !== 'event' && type !== 'signing') {
          throw new SelloError('invalid_query', { detail: '"type" debe ser event o signing.', detailEn: '"type" must be event or signing.' });
        }
        const bookId = typeof book === 'string' && book ? bookParam(store, book).id : undefined;
        ctx.body = { data: recentActivity(store, { limit: 100, ...(bookId ? { bookId } : {}), ...(type ? { type } : {}) }) };
      },
    },
  ];
}
